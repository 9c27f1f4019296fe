/* header_mad.c: include/roce/mad.h compiles on its own (and twice: include guard). */
#include "roce/mad.h"
#include "roce/mad.h"

int header_mad_check(void);
int header_mad_check(void)
{
	struct roce_mad m = {0};
	return (int)sizeof(m.hdr.tid) + m.result;   /* 8 */
}
