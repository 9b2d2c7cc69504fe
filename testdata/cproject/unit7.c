/* unit7: a small translation unit for the exec gate's build benchmark. */
#include <stdio.h>
#include <string.h>

static int table7[64];

int unit7_sum(int n)
{
	int s = 0;
	for (int k = 0; k < 64; k++)
		table7[k] = (k * 7 + n) % 17;
	for (int k = 0; k < 64; k++)
		s += table7[k];
	return s;
}

const char *unit7_name(void)
{
	static char buf[32];
	snprintf(buf, sizeof buf, "unit%d", 7);
	return buf;
}
