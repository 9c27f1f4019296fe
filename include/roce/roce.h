/* roce.h: the whole public API of the rocedump core library. */
#ifndef ROCE_ROCE_H
#define ROCE_ROCE_H

#include "roce/common.h"
#include "roce/events.h"
#include "roce/opcode.h"
#include "roce/headers.h"
#include "roce/decode.h"
#include "roce/build.h"
#include "roce/analyze.h"
#include "roce/mirror.h"
#include "roce/congestion.h"
#include "roce/mad.h"
#include "roce/fields.h"

#endif
