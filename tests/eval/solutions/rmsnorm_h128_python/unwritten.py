# Destination-passing, but writes nothing: the poisoned output fails.
def rmsnorm(hidden_states, weight, output):
    pass
