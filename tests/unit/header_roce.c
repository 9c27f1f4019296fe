/* header_roce.c: include/roce/roce.h compiles on its own (and twice: include guard). */
#include "roce/roce.h"
#include "roce/roce.h"

int header_roce_check(void);
int header_roce_check(void)
{
	struct roce_pkt p = {0};
	return (int)sizeof(p.h.bth) > 0 && p.version == 0 && ROCE_MAX_WRAP == 4;
}
