/* header_build.c: include/roce/build.h compiles on its own (and twice: include guard). */
#include "roce/build.h"
#include "roce/build.h"

int header_build_check(void);
int header_build_check(void)
{
	struct roce_build b = {0};
	b.icrc = ROCE_BUILD_ICRC_VALUE;
	return (int)b.icrc + (int)ROCE_BUILD_ETH_MIN_FRAME;   /* 2 + 4 */
}
