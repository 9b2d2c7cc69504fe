/* main: links the units of the exec gate's build benchmark. */
#include <stdio.h>

#define UNIT(i) int unit##i##_sum(int); const char *unit##i##_name(void);
UNIT(1) UNIT(2) UNIT(3) UNIT(4) UNIT(5) UNIT(6) UNIT(7) UNIT(8)

int main(void)
{
	int s = unit1_sum(1) + unit2_sum(2) + unit3_sum(3) + unit4_sum(4) +
		unit5_sum(5) + unit6_sum(6) + unit7_sum(7) + unit8_sum(8);
	printf("%s..%s %d\n", unit1_name(), unit8_name(), s);
	return 0;
}
