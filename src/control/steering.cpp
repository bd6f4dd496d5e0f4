#include "control/steering.h"
