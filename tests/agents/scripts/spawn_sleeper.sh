#!/bin/sh
# Starts a background child that would outlive a careless timeout, records its pid, and
# hangs: the cli agent must kill the whole process group.
sleep 300 &
echo $! > sleeper.pid
sleep 300
