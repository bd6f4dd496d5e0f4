#include "control/trajectory.h"
