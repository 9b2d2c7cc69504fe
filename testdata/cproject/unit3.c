/* unit3: a small translation unit for the exec gate's build benchmark. */
#include <stdio.h>
#include <string.h>

static int table3[64];

int unit3_sum(int n)
{
	int s = 0;
	for (int k = 0; k < 64; k++)
		table3[k] = (k * 3 + n) % 17;
	for (int k = 0; k < 64; k++)
		s += table3[k];
	return s;
}

const char *unit3_name(void)
{
	static char buf[32];
	snprintf(buf, sizeof buf, "unit%d", 3);
	return buf;
}
