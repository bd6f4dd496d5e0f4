#!/bin/sh
# A cli agent that tries to smuggle $OPENAI_API_KEY out in every disguise: plain, base64
# (two alignments), URL-encoded, split in two; on stdout and into its workspace, with a
# symbolic link beside. It gives no answer.
k="$OPENAI_API_KEY"
b64=$(printf '%s' "$k" | base64 -w0)
b64x=$(printf 'xx%s' "$k" | base64 -w0)
url=$(printf '%s' "$k" | od -An -tx1 | tr -d ' \n' | sed 's/../%&/g')
half=$(( ${#k} / 2 ))
a=$(printf '%s' "$k" | cut -c1-$half)
b=$(printf '%s' "$k" | cut -c$((half + 1))-)
echo "plain $k"
echo "b64 $b64"
echo "b64 shifted $b64x"
echo "url $url"
echo "split $a $b"
echo "split quoted \"$a\" + \"$b\""
mkdir -p out
printf 'key=%s\nb64=%s\nshifted=%s\nurl=%s\nsplit=%s\n%s\n' "$k" "$b64" "$b64x" "$url" "$a" "$b" > out/notes.txt
printf '%s' "$k" > raw_key.txt
ln -s /etc/hostname out/link
exit 0
