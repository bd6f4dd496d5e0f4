#include "control/hypothesis_choice.h"
