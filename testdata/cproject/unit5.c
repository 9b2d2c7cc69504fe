/* unit5: a small translation unit for the exec gate's build benchmark. */
#include <stdio.h>
#include <string.h>

static int table5[64];

int unit5_sum(int n)
{
	int s = 0;
	for (int k = 0; k < 64; k++)
		table5[k] = (k * 5 + n) % 17;
	for (int k = 0; k < 64; k++)
		s += table5[k];
	return s;
}

const char *unit5_name(void)
{
	static char buf[32];
	snprintf(buf, sizeof buf, "unit%d", 5);
	return buf;
}
