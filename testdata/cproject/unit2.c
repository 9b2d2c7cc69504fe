/* unit2: a small translation unit for the exec gate's build benchmark. */
#include <stdio.h>
#include <string.h>

static int table2[64];

int unit2_sum(int n)
{
	int s = 0;
	for (int k = 0; k < 64; k++)
		table2[k] = (k * 2 + n) % 17;
	for (int k = 0; k < 64; k++)
		s += table2[k];
	return s;
}

const char *unit2_name(void)
{
	static char buf[32];
	snprintf(buf, sizeof buf, "unit%d", 2);
	return buf;
}
