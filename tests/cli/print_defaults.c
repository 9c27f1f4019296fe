/* print_defaults.c: rocedump's options with a stated default, one a line, "OPTION VALUE", the
 * value from its named default (ROCE_*_DEFAULT of the public headers, rocedump's own *_DEFAULT)
 * in the option's unit; test-docs.sh holds --help, the man page and docs/ to them. */
#include <inttypes.h>
#include <stdio.h>

#include "export/export.h"
#include "input/live.h"
#include "pipeline.h"
#include "report/report.h"
#include "roce/analyze.h"

int main(void)
{
	printf("-s %d\n", LIVE_SNAPLEN_DEFAULT);
	printf("-B %d\n", LIVE_BUFFER_DEFAULT_KIB);
	printf("--max-streams %" PRIu32 "\n", ROCE_MAX_STREAMS_DEFAULT);
	printf("--copy-window-us %" PRId64 "\n", ROCE_COPY_WINDOW_US_DEFAULT);
	printf("--link-speed %s\n", ROCE_LINK_SPEED_DEFAULT);
	printf("--pfc-storm-ms %" PRId64 "\n", ROCE_PFC_STORM_NS_DEFAULT / 1000000);
	printf("--cnp-interval-us %" PRId64 "\n", ROCE_CNP_INTERVAL_NS_DEFAULT / 1000);
	printf("--cnp-timeout-us %" PRId64 "\n", ROCE_CNP_TIMEOUT_NS_DEFAULT / 1000);
	printf("--batch %d\n", PIPELINE_BATCH_DEFAULT);
	printf("--report-plots %d\n", REPORT_PLOTS_DEFAULT);
	printf("--export-spool-max %llu\n", (unsigned long long)EXPORT_SPOOL_MAX_DEFAULT);
	return 0;
}
