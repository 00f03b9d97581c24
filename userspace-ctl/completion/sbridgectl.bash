# bash completion for sbridgectl(8)
# SPDX-License-Identifier: GPL-2.0

_sbridgectl()
{
	local cur prev words cword
	_init_completion -s 2>/dev/null || {
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD-1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	}

	local cmds="status doctor get set config tasks top rules hintmap matrix check events record calibrate help version"
	local cmd="" sub="" i
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-*) ;;
		*) if [[ -z $cmd ]]; then cmd=${words[i]}; elif [[ -z $sub ]]; then sub=${words[i]}; fi ;;
		esac
	done

	case $prev in
	--sort) COMPREPLY=($(compgen -W "pid comm cpu cpi stall cpib speedup runtime uid" -- "$cur")); return ;;
	--class) COMPREPLY=($(compgen -W "auto compute memory" -- "$cur")); return ;;
	--pid|--limit|--interval|--iterations|--count|--timeout|--comm|--base) return ;;
	--uid) COMPREPLY=($(compgen -u -- "$cur")); return ;;
	--root) COMPREPLY=($(compgen -d -- "$cur")); compopt -o filenames 2>/dev/null; return ;;
	-d|--duration|-r|--rate|-s|--max-size|-b) [[ $cmd == record ]] && return ;;
	-o|--output) [[ $cmd == record ]] && { COMPREPLY=($(compgen -f -- "$cur")); return; } ;;
	--sbridge-events) COMPREPLY=($(compgen -W "all none window phase period decide act report" -- "$cur")); return ;;
	esac
	if [[ $cur == --*=* ]]; then
		case ${cur%%=*} in
		--output) COMPREPLY=($(compgen -P "--output=" -f -- "${cur#*=}")) ;;
		--sbridge-events) COMPREPLY=($(compgen -P "--sbridge-events=" -W "all none window phase period decide act report" -- "${cur#*=}")) ;;
		--sort) COMPREPLY=($(compgen -P "--sort=" -W "pid comm cpu cpi stall cpib speedup runtime uid" -- "${cur#*=}")) ;;
		--uid) COMPREPLY=($(compgen -P "--uid=" -u -- "${cur#*=}")) ;;
		--root) COMPREPLY=($(compgen -P "--root=" -d -- "${cur#*=}")) ;;
		--class) COMPREPLY=($(compgen -P "--class=" -W "auto compute memory" -- "${cur#*=}")) ;;
		esac
		return
	fi

	local opts="--json --help"
	case $cmd in
	tasks) opts+=" --sort= --reverse --pid= --comm= --uid= --class= --limit=" ;;
	top) opts+=" --interval= --iterations= --limit= --comm= --uid=" ;;
	events) opts+=" --count= --timeout=" ;;
	calibrate) opts+=" --dry-run --auto --budget= --wait= --buffer= --state=" ;;
	record) opts+=" --output= --duration= --rate= --max-size= --buffer= --defer --sbridge-events= --no-switches --force" ;;
	rules)
		[[ $sub == check ]] && opts+=" --print"
		[[ $sub == check || $sub == load ]] && opts+=" --system --root=" ;;
	config) [[ $sub == check ]] && opts+=" --print" ;;
	hintmap) [[ $sub == write ]] && opts+=" --base= --comm= --interval= --keep" ;;
	doctor) opts+=" --root=" ;;
	"") opts+=" --version" ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		[[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return
	fi

	case $cmd in
	"") COMPREPLY=($(compgen -W "$cmds" -- "$cur")) ;;
	help) [[ -z $sub ]] && COMPREPLY=($(compgen -W "$cmds" -- "$cur")) ;;
	set|get)
		if [[ -z $sub ]]; then
			COMPREPLY=($(compgen -W "cpu-factor param predictor" -- "$cur"))
		elif [[ $sub == param && $prev == param ]]; then
			# the names the loaded module takes (none if it is not loaded)
			local names
			names=$(awk '{ print $1 }' /sys/kernel/sbridge/params 2>/dev/null)
			COMPREPLY=($(compgen -W "$names" -- "$cur"))
		fi ;;
	rules)
		if [[ -z $sub ]]; then
			COMPREPLY=($(compgen -W "load list clear check" -- "$cur"))
		elif [[ $sub == load || $sub == check ]]; then
			# rule files and directories; needs neither extglob nor
			# the bash-completion package
			local f
			COMPREPLY=()
			compopt -o filenames 2>/dev/null
			while IFS= read -r f; do
				[[ -d $f || $f == *.rules ]] && COMPREPLY+=("$f")
			done < <(compgen -f -- "$cur")
		fi ;;
	config)
		if [[ -z $sub ]]; then
			COMPREPLY=($(compgen -W "apply check save" -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi ;;
	hintmap)
		if [[ -z $sub ]]; then
			COMPREPLY=($(compgen -W "write dump create" -- "$cur"))
		else
			# a pinned map: a path on a bpffs, usually /sys/fs/bpf
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
		fi ;;
	matrix)
		if [[ -z $sub ]]; then
			COMPREPLY=($(compgen -W "save load show" -- "$cur"))
		elif [[ $sub == save || $sub == load ]]; then
			COMPREPLY=($(compgen -f -- "$cur"))
		fi ;;
	esac
} && complete -F _sbridgectl sbridgectl
