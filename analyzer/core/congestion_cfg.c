/* congestion_cfg.c: the congestion settings (congestion.h) from their text forms, one parser for
 * rocedump's options (--link-speed, --dscp-prio) and the Wireshark plugin's preferences
 * (roce.link_speed, roce.dscp_prio): a link speed in bits per second with a K/M/G/T suffix (IEEE
 * 802.3 rates; a pause quantum is 512 bit times), and a DSCP (RFC 2474) to priority map. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "roce/congestion.h"

/* A decimal number, the whole string, at most max. */
static bool dec(const char *s, unsigned long long max, unsigned long long *v)
{
	char *end;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end && *v <= max;
}

bool roce_parse_link_speed(const char *arg, uint64_t *bps)
{
	char num[24];
	size_t n = strlen(arg);
	unsigned long long v, mult = 1;
	if (n == 0 || n >= sizeof(num))
		return false;
	memcpy(num, arg, n + 1);
	switch (num[n - 1]) {
	case 'k': case 'K': mult = 1000ULL; break;
	case 'm': case 'M': mult = 1000000ULL; break;
	case 'g': case 'G': mult = 1000000000ULL; break;
	case 't': case 'T': mult = 1000000000000ULL; break;
	default: break;
	}
	if (mult > 1)
		num[n - 1] = '\0';
	if (!dec(num, 1000000, &v) || v == 0 || v * mult < 1000000ULL)  /* 1 Mb/s .. 1 Pb/s */
		return false;
	*bps = v * mult;
	return true;
}

bool roce_parse_dscp_map(const char *arg, struct roce_congestion_config *c)
{
	char buf[512];
	uint8_t prio[64];
	size_t n = strlen(arg);
	if (n >= sizeof(buf) || !n || arg[0] == ',' || arg[n - 1] == ',' || strstr(arg, ",,"))
		return false;  /* no empty items */
	memcpy(buf, arg, n + 1);
	for (unsigned d = 0; d < 64; d++)
		prio[d] = (uint8_t)(d >> 3);
	char *save = NULL;
	for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		unsigned long long d, p;
		if (!eq)
			return false;
		*eq = '\0';
		if (!dec(item, 63, &d) || !dec(eq + 1, 7, &p))
			return false;
		prio[d] = (uint8_t)p;
	}
	memcpy(c->dscp_prio, prio, sizeof(prio));
	c->dscp_map = true;
	return true;
}
