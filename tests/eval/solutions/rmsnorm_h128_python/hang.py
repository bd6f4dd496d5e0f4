# Never returns: TIMEOUT, and the worker is killed.
def rmsnorm(hidden_states, weight):
    while True:
        pass
