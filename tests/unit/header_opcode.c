/* header_opcode.c: include/roce/opcode.h compiles on its own (and twice: include guard). */
#include "roce/opcode.h"
#include "roce/opcode.h"

int header_opcode_check(void);
int header_opcode_check(void)
{
	return (int)roce_hdrs_len(ROCE_HDR_RETH) + ROCE_BTH_LEN;   /* 16 + 12 */
}
