#!/bin/sh
# A vibing-agent of another version, for the version-mismatch spec.
if [ "$1" = version ]; then
	echo "vibing-agent 0.0.1"
	exit 0
fi
exec "$(dirname "$0")/../../bin/vibing-agent" "$@"
