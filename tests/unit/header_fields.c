/* header_fields.c: include/roce/fields.h compiles on its own (and twice: include guard). */
#include "roce/fields.h"
#include "roce/fields.h"

int header_fields_check(void);
int header_fields_check(void)
{
	return roce_field_by_name("roce.psn") == ROCE_F_PSN && ROCE_F_COUNT > ROCE_F_PSN;
}
