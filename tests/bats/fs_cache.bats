#!/usr/bin/env bats
# cellfs: what the kernel keeps of a local store (entries and attributes
# until the mount changes them, cellfs(1) CACHING) never outlives the
# truth. Each test first makes the kernel hold a name or its attributes
# (stat), then changes the store by another name or another way, and checks
# what ordinary tools see at once, without waiting for any timeout.

load helpers/mount

setup() {
    fs_setup -o versions
    T="$MNT/default/t"
    mkdir "$T"
    mkdir -p "$T/r/cf"
    C="$T/r/cf"
}

teardown() {
    fs_teardown
}

@test "versions that rm q and a re-stamp of q take away are gone at once, though stat held them" {
    echo a > "$C/q"
    old=$(ls "$C" | grep '^q@')
    [ -n "$old" ]
    stat "$C/$old" > /dev/null
    [ "$(cat "$C/$old")" = a ]
    rm "$C/q"
    [ ! -e "$C/$old" ]
    run cat "$C/$old"
    [ "$status" -ne 0 ]
    echo b > "$C/q"
    v=$(ls "$C" | grep '^q@')
    stat "$C/$v" > /dev/null
    touch -d 2020-01-01 "$C/q"
    [ ! -e "$C/$v" ]
    [ "$(ls "$C" | grep '^q@')" = "q@$(date -d 2020-01-01 +%s)000" ]
    [ "$(cat "$C/q")" = b ]
}

@test "mv of a cell takes its versions away and mv of a version changes q, though stat held them" {
    echo a > "$C/q"
    v=$(ls "$C" | grep '^q@')
    stat "$C/$v" "$C/q" > /dev/null
    mv "$C/q" "$C/r"
    [ ! -e "$C/$v" ]
    [ ! -e "$C/q" ]
    [ "$(cat "$C/r")" = a ]
    printf "{NAME => 'cf', VERSIONS => '3'}\n" > "$T/.schema"
    echo 1 > "$C/p"
    sleep 0.01
    echo 22 > "$C/p"
    new=$(ls "$C" | grep '^p@' | sort | tail -1)
    [ "$(stat -c %s "$C/p")" -eq 3 ]
    mv "$C/$new" "$C/s"
    [ "$(stat -c %s "$C/p")" -eq 2 ]
    [ "$(cat "$C/p")" = 1 ]
}

@test "rows and families a dropped family took away are gone at once; the name can be made again" {
    printf "{NAME => 'cf'}\n{NAME => 'g'}\n" > "$T/.schema"
    mkdir -p "$T/r3/g"
    echo x > "$T/r3/g/q"
    stat "$T/r3" "$T/r3/g" "$T/r3/g/q" > /dev/null
    cd "$FS_TMP"
    printf "{NAME => 'g', METHOD => 'delete'}\n" > "$T/.schema"
    [ ! -e "$T/r3/g/q" ]
    [ ! -e "$T/r3/g" ]
    [ ! -e "$T/r3" ]
    [ "$(ls "$T" | tr '\n' ' ')" = "r " ]
    mkdir -p "$T/r3/cf"
    echo y > "$T/r3/cf/q"
    [ "$(cat "$T/r3/cf/q")" = y ]
}

@test ".schema shows its new size and text to stat right after a write" {
    stat -c %s "$T/.schema" > /dev/null
    cat "$T/.schema" > /dev/null
    printf "{NAME => 'cf', VERSIONS => '7'}\n{NAME => 'longer_family_name'}\n" > "$T/.schema"
    [ "$(stat -c %s "$T/.schema")" -eq "$(cat "$T/.schema" | wc -c)" ]
    grep -q "VERSIONS => '7'" "$T/.schema"
    grep -q "longer_family_name" "$T/.schema"
    # tar and editors write another name and rename it over .schema.
    printf "{NAME => 'cf', VERSIONS => '9'}\n" > "$T/.schema.new"
    stat "$T/.schema.new" > /dev/null
    mv "$T/.schema.new" "$T/.schema"
    [ "$(stat -c %s "$T/.schema")" -eq "$(cat "$T/.schema" | wc -c)" ]
    grep -q "VERSIONS => '9'" "$T/.schema"
}

@test "a cell with a TTL is gone once it expires, though stat held it" {
    printf "{NAME => 'cf', TTL => '2'}\n" > "$T/.schema"
    echo v > "$C/q"
    [ "$(cat "$C/q")" = v ]
    # The last call before the wait is a stat of the size alone (a read
    # leaves the kernel without the atime, so a whole stat would ask).
    [ "$(stat -c %s "$C/q")" -eq 2 ]
    sleep 2.5
    run stat -c %s "$C/q"
    [ "$status" -ne 0 ]
    [ ! -e "$C/q" ]
    run cat "$C/q"
    [ "$status" -ne 0 ]
    [ -z "$(ls "$C")" ]
}

@test "another process's stat shows a writer's value once it closes, and the row's and family's new mtime" {
    printf 12 > "$C/q"
    [ "$(stat -c %s "$C/q")" -eq 2 ]
    row_before=$(stat -c %Y "$T/r")
    fam_before=$(stat -c %Y "$C")
    sleep 1.1
    python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_WRONLY|os.O_APPEND); os.write(fd, b"34567890"); os.close(fd)' "$C/q"
    [ "$(stat -c %s "$C/q")" -eq 10 ]
    [ "$(cat "$C/q")" = 1234567890 ]
    [ "$(stat -c %Y "$T/r")" -gt "$row_before" ]
    [ "$(stat -c %Y "$C")" -gt "$fam_before" ]
    [ "$(stat -c %Y "$C/q")" -eq "$(stat -c %Y "$T/r")" ]
}

@test "an open for writing without O_CREAT of a name whose last version went fails with ENOENT; with O_CREAT it creates" {
    echo a > "$C/q"
    v=$(ls "$C" | grep '^q@')
    stat "$C/q" > /dev/null
    rm "$C/$v"
    run python3 -c 'import os,sys; os.open(sys.argv[1], os.O_WRONLY)' "$C/q"
    [ "$status" -ne 0 ]
    [[ "$output" == *FileNotFoundError* ]]
    [ ! -e "$C/q" ]
    echo b > "$C/q"
    [ "$(cat "$C/q")" = b ]
}

@test "a table@<ts> view shows a version put at an older time within a second" {
    printf "{NAME => 'cf', VERSIONS => '5'}\n" > "$T/.schema"
    echo new > "$C/q"
    ts=$(ls "$C" | grep '^q@' | sed 's/^q@//')
    echo v1 > "$C/q@$((ts - 5000))"
    view="$MNT/default/t@$((ts - 1000))/r/cf/q"
    [ "$(cat "$view")" = v1 ]
    stat "$view" > /dev/null
    echo older > "$C/q@$((ts - 2000))"
    sleep 1.2
    [ "$(cat "$view")" = older ]
    [ "$(stat -c %s "$view")" -eq 6 ]
}

@test "listings the kernel keeps show every change at once: new rows, versions, families added and dropped" {
    printf "{NAME => 'cf', VERSIONS => '2'}\n" > "$T/.schema"
    echo a > "$C/q"
    [ "$(ls "$T" | tr '\n' ' ')" = "r " ]
    [ "$(ls "$C" | grep -c '^q@')" -eq 1 ]
    # A cell in a new row (made by a write, not by mkdir in the listed directory).
    mkdir -p "$T/r2/cf"
    [ "$(ls "$T" | tr '\n' ' ')" = "r r2 " ]
    ls "$T" > /dev/null
    python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_CREAT|os.O_WRONLY); os.write(fd, b"x"); os.close(fd)' "$T/r2/cf/z"
    [ "$(ls "$T/r2/cf" | grep -v @)" = z ]
    sleep 0.01
    echo b > "$C/q"
    [ "$(ls "$C" | grep -c '^q@')" -eq 2 ]
    sleep 0.01
    echo c > "$C/q"
    [ "$(ls "$C" | grep -c '^q@')" -eq 2 ]
    # r is a row of the store now (a row made with mkdir in this mount
    # shows only the families made in it: cellfs(1)).
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -o versions
    ls "$T/r" > /dev/null
    printf "{NAME => 'g'}\n" > "$T/.schema"
    [ "$(ls "$T/r" | tr '\n' ' ')" = "cf g " ]
    mkdir -p "$T/r3/g"
    echo y > "$T/r3/g/y"
    ls "$T" "$T/r3" > /dev/null
    printf "{NAME => 'g', METHOD => 'delete'}\n" > "$T/.schema"
    [ "$(ls "$T" | tr '\n' ' ')" = "r r2 " ]
    [ "$(ls "$T/r" | tr '\n' ' ')" = "cf " ]
}

@test "a TTL set, changed and removed through .schema rules what stat shows from then on" {
    echo v > "$C/q"
    # The kernel holds q, and the mount knows the table's families (no TTL).
    [ "$(stat -c %s "$C/q")" -eq 2 ]
    ls "$T/r" > /dev/null
    printf "{NAME => 'cf', TTL => '3600'}\n" > "$T/.schema"
    [ "$(stat -c %s "$C/q")" -eq 2 ]
    printf "{NAME => 'cf', TTL => '2'}\n" > "$T/.schema"
    [ "$(stat -c %s "$C/q")" -eq 2 ]
    sleep 2.5
    run stat -c %s "$C/q"
    [ "$status" -ne 0 ]
    # Without a TTL the cell (still in the store) shows again, and stays:
    # where the store keeps expired cells until a compaction.
    printf "{NAME => 'cf', TTL => 'FOREVER'}\n" > "$T/.schema"
    if backend_has expired_cells_kept; then
        [ "$(cat "$C/q")" = v ]
        [ "$(stat -c %s "$C/q")" -eq 2 ]
    fi
    # A table dropped and made anew under the same name has new families:
    # g is gone with the old table.
    printf "{NAME => 'cf', TTL => '2'}\n{NAME => 'g'}\n" > "$T/.schema"
    mkdir -p "$T/r/g"
    echo x > "$T/r/g/x"
    rm -rf "$T/r"
    rmdir "$T"
    mkdir "$T"
    run mkdir -p "$T/r/g"
    [ "$status" -ne 0 ]
    run sh -c "echo x > '$T/r2/g/x'"
    [ "$status" -ne 0 ]
    mkdir -p "$T/r/cf"
    echo w > "$T/r/cf/q"
    [ "$(stat -c %s "$T/r/cf/q")" -eq 2 ]
    sleep 2.5
    [ "$(cat "$T/r/cf/q")" = w ]
}
