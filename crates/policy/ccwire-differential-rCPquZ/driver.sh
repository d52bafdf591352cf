i=0
while IFS= read -r -d '' cmd; do
  start=$EPOCHREALTIME
  timeout -s KILL 10 /bin/bash --norc --noprofile -c 'shopt -s expand_aliases; shopt -u extglob; eval "$1"' "ccwire-case-$i" "$cmd" </dev/null >/dev/null 2>&1
  echo "$i $start $EPOCHREALTIME" >> /work/main/crates/policy/./ccwire-differential-rCPquZ/times
  i=$((i+1))
done < "$1"
