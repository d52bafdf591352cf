i=0
while IFS= read -r -d '' cmd; do
  timeout -s KILL 10 /bin/bash --norc --noprofile -c 'shopt -s expand_aliases; shopt -u extglob; eval "$1"' "twinwire-case-$i" "$cmd" </dev/null >"/work/main/crates/policy/./twinwire-differential-f6M4Gi/tree/output/$i" 2>&1
  i=$((i+1))
done < "$1"
