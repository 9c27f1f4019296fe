/* header_congestion.c: include/roce/congestion.h compiles on its own (and twice: include guard). */
#include "roce/congestion.h"
#include "roce/congestion.h"

int header_congestion_check(void);
int header_congestion_check(void)
{
	struct roce_pfc_row r = {.priority = -1};
	return r.priority + 1;   /* 0 */
}
