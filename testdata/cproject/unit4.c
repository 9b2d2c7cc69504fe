/* unit4: a small translation unit for the exec gate's build benchmark. */
#include <stdio.h>
#include <string.h>

static int table4[64];

int unit4_sum(int n)
{
	int s = 0;
	for (int k = 0; k < 64; k++)
		table4[k] = (k * 4 + n) % 17;
	for (int k = 0; k < 64; k++)
		s += table4[k];
	return s;
}

const char *unit4_name(void)
{
	static char buf[32];
	snprintf(buf, sizeof buf, "unit%d", 4);
	return buf;
}
