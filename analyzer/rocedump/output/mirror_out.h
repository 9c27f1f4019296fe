/* mirror_out.h: the mirror sessions of the -q summary (roce/mirror.h): per GRE tunnel or ERSPAN
 * session, the frames seen and the ones its own sequence numbers show the mirror lost. */
#ifndef ROCEDUMP_MIRROR_OUT_H
#define ROCEDUMP_MIRROR_OUT_H

#include <stdio.h>

#include "input/capstats.h"
#include "roce/analyze.h"

/* -q text: the table of sessions; nothing when the capture had none. */
void mirror_print_text(const struct roce_analyzer *a, const struct capstats *cs, FILE *out);
/* -q JSON: ,"mirror":{...} (a key of the enclosing object); nothing when the capture had none. */
void mirror_print_json(const struct roce_analyzer *a, const struct capstats *cs, FILE *out);

#endif
