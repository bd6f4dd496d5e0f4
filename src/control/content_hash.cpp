#include "control/content_hash.h"
