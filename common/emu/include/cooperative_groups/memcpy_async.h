/* cooperative_groups/memcpy_async.h -- memcpy_async is in cooperative_groups.h here. */
#include "../cooperative_groups.h"
