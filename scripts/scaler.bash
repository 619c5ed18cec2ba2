# scaler.bash - bash completion for scaler (installed as
# share/bash-completion/completions/scaler; or `source scripts/scaler.bash`).
#
# Knows nothing of scaler's commands or options itself: it asks the scaler
# being completed, like perf's completion does. `scaler --list-cmds` names
# the commands and `scaler CMD --list-opts` prints one line per option,
# "--NAME SHORT ARG KIND [CHOICE...]" (SHORT "-x" or "-", ARG
# none|required|optional, KIND none|file|dir|word|choice|component), then
# "-- KIND" for the operands (none|file|dir|word|command).

# _scaler_files KIND CUR: file or directory names for COMPREPLY
_scaler_files()
{
	local IFS=$'\n'
	compopt -o filenames 2>/dev/null
	if [[ $1 == dir ]]; then
		COMPREPLY=($(compgen -d -- "$2"))
	else
		COMPREPLY=($(compgen -f -- "$2"))
	fi
}

# _scaler_components CUR: the components of the profile the command line
# reads (its -i/--input, or scaler.data), for --component
_scaler_components()
{
	local dir=scaler.data i w
	for ((i = 2; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		-i | --input)
			if [[ ${COMP_WORDS[i + 1]} == = ]]; then
				dir=${COMP_WORDS[i + 2]}
			else
				dir=${COMP_WORDS[i + 1]}
			fi
			;;
		--input=*) dir=${w#--input=} ;;
		-i?*) dir=${w#-i} ;;
		esac
	done
	local IFS=$'\n'
	COMPREPLY=($(compgen -W "$("$scaler" report -i "$dir" --list-components 2>/dev/null)" \
		-- "$1"))
}

# _scaler_value KIND CUR CHOICE...: the values of an option's argument
_scaler_value()
{
	local kind=$1 cur=$2
	shift 2
	case $kind in
	choice) COMPREPLY=($(compgen -W "$*" -- "$cur")) ;;
	component) _scaler_components "$cur" ;;
	file | dir) _scaler_files "$kind" "$cur" ;;
	*) COMPREPLY=() ;;
	esac
}

# _scaler_opt NAME: the --list-opts line (of the caller's $lines) whose
# long or short name is NAME, into the caller's $opt; false if none
_scaler_opt()
{
	local l long short
	for l in "${lines[@]}"; do
		read -r long short _ <<<"$l"
		if [[ $long == "$1" || ($short != - && $short == "$1") ]]; then
			opt=$l
			return 0
		fi
	done
	opt=
	return 1
}

_scaler()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local scaler=${COMP_WORDS[0]} cmd i w
	COMPREPLY=()

	if ((COMP_CWORD == 1)); then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--help --version --list-cmds" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$("$scaler" --list-cmds 2>/dev/null)" -- "$cur"))
		fi
		return 0
	fi
	cmd=${COMP_WORDS[1]}
	if [[ $cmd == help ]]; then
		((COMP_CWORD == 2)) &&
			COMPREPLY=($(compgen -W "$("$scaler" --list-cmds 2>/dev/null)" -- "$cur"))
		return 0
	fi

	local -a lines
	local IFS=$'\n'
	lines=($("$scaler" "$cmd" --list-opts 2>/dev/null))
	unset IFS
	((${#lines[@]})) || return 0

	local opt

	# Walk the words before the cursor: skip option arguments, and find
	# where the operands start (for record, the command to run).
	local operands=none start=0 line
	for line in "${lines[@]}"; do
		[[ $line == "-- "* ]] && operands=${line#-- }
	done
	for ((i = 2; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $w == -- ]]; then
			start=$((i + 1))
			break
		fi
		if [[ $w == -* && $w != *=* && $w != - ]] && _scaler_opt "$w"; then
			set -- $opt
			# "--opt value": the next word is the value (not when bash
			# split "--opt=value" into "--opt" "=" "value")
			if [[ $3 == required && ${COMP_WORDS[i + 1]} != = ]]; then
				((i++))
			elif [[ ${COMP_WORDS[i + 1]} == = ]]; then
				((i += 2))
			fi
			continue
		fi
		if [[ $w == = ]]; then
			((i++))
			continue
		fi
		if [[ $w != -* && $operands == command ]]; then
			start=$i
			break
		fi
	done

	# inside the operands of record: the command, then its own arguments
	if ((start > 0)) && [[ $operands == command ]]; then
		if ((start == COMP_CWORD)); then
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -c -- "$cur"))
		elif declare -F _command_offset >/dev/null; then
			_command_offset "$start"
		else
			_scaler_files file "$cur"
		fi
		return 0
	fi

	# the value of an option: "--opt value", "--opt=value" (bash splits
	# it at '=' into three words, or not, after COMP_WORDBREAKS)
	local name=
	if [[ $cur == --*=* ]]; then
		name=${cur%%=*}
		cur=${cur#*=}
	elif [[ $cur == = ]]; then
		name=$prev
		cur=
	elif [[ $prev == = ]] && ((COMP_CWORD >= 3)); then
		name=${COMP_WORDS[COMP_CWORD - 2]}
	elif [[ $prev == -* ]] && _scaler_opt "$prev"; then
		set -- $opt
		[[ $3 == required ]] && name=$prev
	fi
	if [[ -n $name ]] && _scaler_opt "$name"; then
		set -- $opt
		local kind=$4
		shift 4
		_scaler_value "$kind" "$cur" "$@"
		return 0
	fi

	if [[ $cur == -* ]]; then
		local names=
		for line in "${lines[@]}"; do
			set -- $line
			[[ $1 == -- || $1 == --list-* ]] && continue
			names+=" $1"
		done
		COMPREPLY=($(compgen -W "$names" -- "$cur"))
		return 0
	fi
	case $operands in
	file | dir) _scaler_files "$operands" "$cur" ;;
	command) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -c -- "$cur")) ;;
	esac
	return 0
}

complete -F _scaler scaler
