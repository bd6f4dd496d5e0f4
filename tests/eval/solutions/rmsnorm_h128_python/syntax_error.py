# Does not parse: a COMPILE_ERROR found when the worker imports it, before any call.
def rmsnorm(hidden_states, weight)
    return hidden_states
