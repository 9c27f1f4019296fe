/* header_decode.c: include/roce/decode.h compiles on its own (and twice: include guard). */
#include "roce/decode.h"
#include "roce/decode.h"

int header_decode_check(void);
int header_decode_check(void)
{
	struct roce_net n = {0};
	n.tclass = 0xbb;
	return (int)(roce_dscp(&n) * 10 + roce_ecn(&n)) + ROCE_UDP_PORT;   /* 463 + 4791 */
}
