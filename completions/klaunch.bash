# bash completion for klaunch (installed as
# share/bash-completion/completions/klaunch).
# Self-contained: it needs nothing of the bash-completion package.
_klaunch_files() { COMPREPLY=($(compgen -f -- "$1")); }
_klaunch() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  local -a words=("${COMP_WORDS[@]}")
  local cword=$COMP_CWORD
  local run_opts="--policy --preset --audit --log --quiet --verbose --trace
    --ask --keep-orphans --fail-on-refusal --timeout --kill-after
    --no-seccomp --no-landlock --require --help --version"
  local i sub=""
  for ((i = 1; i < cword; i++)); do
    case ${words[i]} in
      --) # CMD and its arguments: a command, then files.
        if [ $((i + 1)) -eq "$cword" ]; then
          COMPREPLY=($(compgen -c -- "$cur"))
        else
          _klaunch_files "$cur"
        fi
        return ;;
      check|explain|suggest|doctor|syscalls|help)
        [ $i -eq 1 ] && sub=${words[i]} ;;
    esac
  done
  case $prev in
    --policy|--base|--log|check) _klaunch_files "$cur"; return ;;
    --preset) COMPREPLY=($(compgen -W "read-only workspace-write full-access none" -- "$cur")); return ;;
    --require) COMPREPLY=($(compgen -W "landlock seccomp" -- "$cur")); return ;;
    --timeout|--kill-after|--exec|--connect) return ;;
    --read|--write) _klaunch_files "$cur"; return ;;
  esac
  case $sub in
    check) _klaunch_files "$cur" ;;
    explain) COMPREPLY=($(compgen -W "--policy --preset --read --write --exec --connect --help" -- "$cur")) ;;
    suggest) if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "--base --help" -- "$cur")); else _klaunch_files "$cur"; fi ;;
    doctor) COMPREPLY=($(compgen -W "--json --settings --help" -- "$cur")) ;;
    syscalls|help) ;;
    *)
      if [ "$cword" -eq 1 ] && [[ $cur != -* ]]; then
        COMPREPLY=($(compgen -W "check explain suggest doctor syscalls help" -- "$cur"))
      else
        COMPREPLY=($(compgen -W "$run_opts --" -- "$cur"))
      fi ;;
  esac
}
complete -o filenames -F _klaunch klaunch
