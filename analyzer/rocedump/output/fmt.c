/* fmt.c: address and timestamp text (see fmt.h). */
#include "output/fmt.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void fmt_net_addrs(const struct roce_pkt *p, const uint8_t *frame, char src[FMT_ADDR_MAX], char dst[FMT_ADDR_MAX])
{
	unsigned len;
	const uint8_t *a = fmt_net_src(p, frame, &len);

	src[0] = dst[0] = '\0';
	if (!a)
		return;
	fmt_ip(src, a, len);
	fmt_ip(dst, a + len, len);
}

/* ".frac": 6 or 9 digits of nsec at p; returns the end. */
static char *put_frac(char *p, uint32_t nsec, bool nano)
{
	unsigned digits = nano ? 9 : 6;
	uint32_t v = nano ? nsec : nsec / 1000;
	*p++ = '.';
	for (unsigned i = digits; i-- > 0;) {
		p[i] = (char)('0' + v % 10);
		v /= 10;
	}
	return p + digits;
}

/* "HH:MM:SS" (UTC) of sec at p, or false when the date cannot be had. "HH:MM:SS" changes once
 * a second: the last one is kept (the CLI prints on one thread). */
static bool put_hms(char *p, int64_t sec)
{
	static int64_t cached_sec = INT64_MIN;
	static char hms[9];
	if (sec != cached_sec) {
		time_t t = (time_t)sec;
		struct tm tm;
		if (!gmtime_r(&t, &tm))
			return false;
		snprintf(hms, sizeof(hms), "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
		cached_sec = sec;
	}
	memcpy(p, hms, 8);
	return true;
}

/* Seconds since 1970 and the fraction, negative times as a negative number. */
static char *put_epoch(char *p, int64_t sec, uint32_t nsec, bool nano)
{
	if (sec < 0 && nsec) {  /* -(|sec| - 1 + (1 s - nsec)) */
		sec = -(sec + 1);
		nsec = 1000000000u - nsec;
		*p++ = '-';
	}
	p += sprintf(p, "%lld", (long long)sec);
	return put_frac(p, nsec, nano);
}

/* The time since ref. In microseconds both times lose their nanoseconds first, as tcpdump's do
 * (libpcap hands it microseconds), so that the delta is the one tcpdump prints. */
static char *put_delta(char *p, int64_t sec, uint32_t nsec, const struct ts_clock *ref, bool nano)
{
	uint32_t unit = nano ? 1 : 1000;
	__int128 d = ((__int128)sec * 1000000000 + (nsec - nsec % unit)) -
		     ((__int128)ref->sec * 1000000000 + (ref->nsec - ref->nsec % unit));
	*p++ = d < 0 ? '-' : ' ';
	unsigned __int128 a = (unsigned __int128)(d < 0 ? -d : d);
	uint64_t s = (uint64_t)(a / 1000000000u);  /* two int64 seconds differ by less than 2^64 */
	p += sprintf(p, "%02llu:%02u:%02u", (unsigned long long)(s / 3600), (unsigned)(s / 60 % 60), (unsigned)(s % 60));
	return put_frac(p, (uint32_t)(a % 1000000000u), nano);
}

void fmt_time(char out[FMT_TIME_MAX], enum ts_style style, bool nano, int64_t sec, uint32_t nsec,
	      struct ts_clock *clock)
{
	char *p = out;
	switch (style) {
	case TS_NONE:
		break;
	case TS_EPOCH:
		p = put_epoch(p, sec, nsec, nano);
		break;
	case TS_DELTA_PREV:
	case TS_DELTA_FIRST:
		if (!clock->set)  /* the first frame is its own reference */
			*clock = (struct ts_clock){sec, nsec, true};
		p = put_delta(p, sec, nsec, clock, nano);
		if (style == TS_DELTA_PREV)
			*clock = (struct ts_clock){sec, nsec, true};
		break;
	case TS_DATE: {
		time_t t = (time_t)sec;
		struct tm tm;
		if (!gmtime_r(&t, &tm)) {
			p = put_epoch(p, sec, nsec, nano);
			break;
		}
		p += sprintf(p, "%04d-%02d-%02d %02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
			     tm.tm_min, tm.tm_sec);
		p = put_frac(p, nsec, nano);
		break;
	}
	default: /* TS_TIME */
		if (!put_hms(p, sec)) {
			p = put_epoch(p, sec, nsec, nano);
			break;
		}
		p = put_frac(p + 8, nsec, nano);
		break;
	}
	*p = '\0';
}
