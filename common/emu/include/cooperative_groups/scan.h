/* cooperative_groups/scan.h -- the scans are in reduce.h here. */
#include "../cooperative_groups.h"
