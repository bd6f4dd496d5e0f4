#include "archive/hypothesis_outcomes.h"
