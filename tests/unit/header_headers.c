/* header_headers.c: include/roce/headers.h compiles on its own (and twice: include guard). */
#include "roce/headers.h"
#include "roce/headers.h"

int header_headers_check(void);
int header_headers_check(void)
{
	struct roce_hdrs h = {0};
	h.aeth.syndrome = 0x62;
	return (int)(roce_aeth_kind(h.aeth.syndrome) * 10 + roce_aeth_value(h.aeth.syndrome));   /* 32 */
}
