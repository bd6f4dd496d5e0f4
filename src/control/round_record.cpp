#include "control/round_record.h"
