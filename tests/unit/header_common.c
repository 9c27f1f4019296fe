/* header_common.c: include/roce/common.h compiles on its own (and twice: include guard). */
#include "roce/common.h"
#include "roce/common.h"

int header_common_check(void);
int header_common_check(void)
{
	return ROCE_ERR_NOSPACE + ROCE_LINK_SLL2 + ROCE_CSUM_UNVERIFIABLE;   /* -2 + 276 + 3 */
}
