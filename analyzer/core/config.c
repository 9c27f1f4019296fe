/* config.c: the analysis settings' defaults (roce_analyzer_config_init, analyze.h;
 * roce_congestion_config_init, congestion.h), the named ROCE_*_DEFAULT values the CLI's options
 * and the plugin's preferences start from too. */
#include <string.h>

#include "roce/analyze.h"

void roce_analyzer_config_init(struct roce_analyzer_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->max_streams = ROCE_MAX_STREAMS_DEFAULT;
	cfg->copy_window_us = ROCE_COPY_WINDOW_US_DEFAULT;
}

void roce_congestion_config_init(struct roce_congestion_config *c)
{
	memset(c, 0, sizeof(*c));
	c->link_bps = ROCE_LINK_BPS_DEFAULT;
	c->pfc_storm_ns = ROCE_PFC_STORM_NS_DEFAULT;
	c->cnp_interval_ns = ROCE_CNP_INTERVAL_NS_DEFAULT;
	c->cnp_timeout_ns = ROCE_CNP_TIMEOUT_NS_DEFAULT;
}
