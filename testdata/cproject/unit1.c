/* unit1: a small translation unit for the exec gate's build benchmark. */
#include <stdio.h>
#include <string.h>

static int table1[64];

int unit1_sum(int n)
{
	int s = 0;
	for (int k = 0; k < 64; k++)
		table1[k] = (k * 1 + n) % 17;
	for (int k = 0; k < 64; k++)
		s += table1[k];
	return s;
}

const char *unit1_name(void)
{
	static char buf[32];
	snprintf(buf, sizeof buf, "unit%d", 1);
	return buf;
}
