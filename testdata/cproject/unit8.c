/* unit8: a small translation unit for the exec gate's build benchmark. */
#include <stdio.h>
#include <string.h>

static int table8[64];

int unit8_sum(int n)
{
	int s = 0;
	for (int k = 0; k < 64; k++)
		table8[k] = (k * 8 + n) % 17;
	for (int k = 0; k < 64; k++)
		s += table8[k];
	return s;
}

const char *unit8_name(void)
{
	static char buf[32];
	snprintf(buf, sizeof buf, "unit%d", 8);
	return buf;
}
