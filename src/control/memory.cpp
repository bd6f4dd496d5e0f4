#include "control/memory.h"
