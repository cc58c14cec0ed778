# Counting the FUSE requests of a step (fs_roundtrips.bats, fs_walk.bats):
# the mount runs with -d, whose log ($FS_TMP/cellfs.log) names each
# request's opcode.

# mark: remembers where the daemon's log ends now.
mark() {
    sleep 0.3                     # RELEASE is sent after close(2) returns
    MARK=$(wc -l < "$FS_TMP/cellfs.log")
}

# count OPCODE: requests of that opcode logged since the last mark.
count() {
    sleep 0.3
    tail -n +"$((MARK + 1))" "$FS_TMP/cellfs.log" | grep -c "opcode: $1 " || true
}

# requests: every opcode logged since the last mark, "NAME=N" sorted.
requests() {
    sleep 0.3
    tail -n +"$((MARK + 1))" "$FS_TMP/cellfs.log" |
        sed -n 's/.*opcode: \([A-Z_?]*\) .*/\1/p' | sort | uniq -c | awk '{ printf "%s=%s ", $2, $1 }'
}
