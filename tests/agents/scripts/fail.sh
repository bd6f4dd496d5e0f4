#!/bin/sh
echo "model refused: quota exhausted" >&2
exit 3
