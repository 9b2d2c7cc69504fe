/* unit6: a small translation unit for the exec gate's build benchmark. */
#include <stdio.h>
#include <string.h>

static int table6[64];

int unit6_sum(int n)
{
	int s = 0;
	for (int k = 0; k < 64; k++)
		table6[k] = (k * 6 + n) % 17;
	for (int k = 0; k < 64; k++)
		s += table6[k];
	return s;
}

const char *unit6_name(void)
{
	static char buf[32];
	snprintf(buf, sizeof buf, "unit%d", 6);
	return buf;
}
