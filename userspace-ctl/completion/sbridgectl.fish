# fish completion for sbridgectl(8)
# SPDX-License-Identifier: GPL-2.0

set -l cmds status doctor get set config tasks top rules hintmap matrix check events record calibrate help version

function __sbridgectl_params
	# the names the loaded module takes (none if it is not loaded)
	awk '{ print $1 }' /sys/kernel/sbridge/params 2>/dev/null
end

complete -c sbridgectl -f
complete -c sbridgectl -s j -l json -d 'JSON output'
complete -c sbridgectl -s h -l help -d 'print help'
complete -c sbridgectl -n "not __fish_seen_subcommand_from $cmds" -s V -l version -d 'print the version'

complete -c sbridgectl -n "not __fish_seen_subcommand_from $cmds" -a status -d 'what is loaded and in force'
complete -c sbridgectl -n "not __fish_seen_subcommand_from $cmds" -a doctor -d 'check sbridge here and say what to fix'
complete -c sbridgectl -n "not __fish_seen_subcommand_from $cmds" -a get -d 'per-CPU view or module parameters'
complete -c sbridgectl -n "not __fish_seen_subcommand_from $cmds" -a set -d 'CPU factor override or module parameter'
complete -c sbridgectl -n "not __fish_seen_subcommand_from $cmds" -a config -d 'apply, check or save a boot file'
complete -c sbridgectl -n "not __fish_seen_subcommand_from $cmds" -a tasks -d 'tracked tasks and their model state'
complete -c sbridgectl -n "not __fish_seen_subcommand_from $cmds" -a top -d 'live view of the tracked tasks'
complete -c sbridgectl -n "not __fish_seen_subcommand_from $cmds" -a rules -d 'load, list, clear or check rule files'
complete -c sbridgectl -n "not __fish_seen_subcommand_from $cmds" -a hintmap -d "write, dump or create scx_layered's task-hint map"
complete -c sbridgectl -n "not __fish_seen_subcommand_from $cmds" -a matrix -d 'save, load or show the learned matrix'
complete -c sbridgectl -n "not __fish_seen_subcommand_from $cmds" -a check -d 'the work-conserving checker'
complete -c sbridgectl -n "not __fish_seen_subcommand_from $cmds" -a events -d 'follow sbridge events'
complete -c sbridgectl -n "not __fish_seen_subcommand_from $cmds" -a record -d 'record a trace for the tools'
complete -c sbridgectl -n "not __fish_seen_subcommand_from $cmds" -a calibrate -d 'measure the core types, set CPU factors and latency'
complete -c sbridgectl -n "not __fish_seen_subcommand_from $cmds" -a help -d 'help on a command'
complete -c sbridgectl -n "not __fish_seen_subcommand_from $cmds" -a version -d 'versions of the tool and the module'
complete -c sbridgectl -n "__fish_seen_subcommand_from help" -a "$cmds"

# get / set
complete -c sbridgectl -n "__fish_seen_subcommand_from get set; and not __fish_seen_subcommand_from cpu-factor param predictor" -a "cpu-factor param predictor"
complete -c sbridgectl -n "__fish_seen_subcommand_from param" -a "(__sbridgectl_params)"

# config
complete -c sbridgectl -n "__fish_seen_subcommand_from config; and not __fish_seen_subcommand_from apply check save" -a "apply check save"
complete -c sbridgectl -n "__fish_seen_subcommand_from config; and __fish_seen_subcommand_from apply check save" -F
complete -c sbridgectl -n "__fish_seen_subcommand_from config rules; and __fish_seen_subcommand_from check" -s p -l print -d 'print each entry in canonical form'

# rules
complete -c sbridgectl -n "__fish_seen_subcommand_from rules; and not __fish_seen_subcommand_from load list clear check" -a "load list clear check"
complete -c sbridgectl -n "__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from load check" -F
complete -c sbridgectl -n "__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from load check" -l system -d 'the layered rule directories'
complete -c sbridgectl -n "__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from load check" -l root -x -a "(__fish_complete_directories)" -d 'read the layers under DIR'

# matrix
complete -c sbridgectl -n "__fish_seen_subcommand_from matrix; and not __fish_seen_subcommand_from save load show" -a "save load show"
complete -c sbridgectl -n "__fish_seen_subcommand_from matrix; and __fish_seen_subcommand_from save load" -F

# hintmap
complete -c sbridgectl -n "__fish_seen_subcommand_from hintmap; and not __fish_seen_subcommand_from write dump create" -a "write dump create"
complete -c sbridgectl -n "__fish_seen_subcommand_from hintmap; and __fish_seen_subcommand_from write dump create" -F
complete -c sbridgectl -n "__fish_seen_subcommand_from hintmap; and __fish_seen_subcommand_from write" -l base -x -d 'value of no decision (fast +1, slow +2)'
complete -c sbridgectl -n "__fish_seen_subcommand_from hintmap; and __fish_seen_subcommand_from write" -l comm -x -d 'only tasks of this name'
complete -c sbridgectl -n "__fish_seen_subcommand_from hintmap; and __fish_seen_subcommand_from write" -l interval -x -d 'seconds between passes'
complete -c sbridgectl -n "__fish_seen_subcommand_from hintmap; and __fish_seen_subcommand_from write" -l keep -d 'leave the entries at the end'

# doctor
complete -c sbridgectl -n "__fish_seen_subcommand_from doctor" -l root -x -a "(__fish_complete_directories)" -d 'read the files under DIR'

# tasks / top
set -l sorts pid comm cpu cpi stall cpib speedup runtime uid
complete -c sbridgectl -n "__fish_seen_subcommand_from tasks" -s s -l sort -x -a "$sorts" -d 'sort key'
complete -c sbridgectl -n "__fish_seen_subcommand_from tasks" -s r -l reverse -d 'reverse the order'
complete -c sbridgectl -n "__fish_seen_subcommand_from tasks" -s p -l pid -x -d 'only this pid'
complete -c sbridgectl -n "__fish_seen_subcommand_from tasks" -s C -l class -x -a "auto compute memory" -d 'only this class'
complete -c sbridgectl -n "__fish_seen_subcommand_from tasks top" -s c -l comm -x -d 'only this name'
complete -c sbridgectl -n "__fish_seen_subcommand_from tasks top" -s u -l uid -x -a "(__fish_complete_users)" -d 'only this user'
complete -c sbridgectl -n "__fish_seen_subcommand_from tasks top" -s l -l limit -x -d 'at most N tasks'
complete -c sbridgectl -n "__fish_seen_subcommand_from top" -s i -l interval -x -d 'seconds between views'
complete -c sbridgectl -n "__fish_seen_subcommand_from top" -s n -l iterations -x -d 'views'

# events
complete -c sbridgectl -n "__fish_seen_subcommand_from events" -s n -l count -x -d 'stop after N events'
complete -c sbridgectl -n "__fish_seen_subcommand_from events" -s t -l timeout -x -d 'seconds without an event'

# record
complete -c sbridgectl -n "__fish_seen_subcommand_from record" -s o -l output -r -F -d 'trace file'
complete -c sbridgectl -n "__fish_seen_subcommand_from record" -s d -l duration -x -d 'seconds'
complete -c sbridgectl -n "__fish_seen_subcommand_from record" -s r -l rate -x -d 'samples per second'
complete -c sbridgectl -n "__fish_seen_subcommand_from record" -s s -l max-size -x -d 'size limit (K, M, G)'
complete -c sbridgectl -n "__fish_seen_subcommand_from record" -l sbridge-events -x -a 'all none window phase period decide act report' -d 'sbridge trace events (comma list)'
complete -c sbridgectl -n "__fish_seen_subcommand_from record" -l no-switches -d 'no context switches'
complete -c sbridgectl -n "__fish_seen_subcommand_from record" -s b -l buffer -x -d 'kernel buffer per CPU (K, M, G)'
complete -c sbridgectl -n "__fish_seen_subcommand_from record" -l defer -d 'read the events at the end'
complete -c sbridgectl -n "__fish_seen_subcommand_from record" -s f -l force -d 'overwrite the output'
# calibrate
complete -c sbridgectl -n "__fish_seen_subcommand_from calibrate" -s n -l dry-run -d 'measure, write nothing'
complete -c sbridgectl -n "__fish_seen_subcommand_from calibrate" -l auto -d 'apply the stored calibration or measure'
complete -c sbridgectl -n "__fish_seen_subcommand_from calibrate" -l budget -x -d 'seconds'
complete -c sbridgectl -n "__fish_seen_subcommand_from calibrate" -l wait -x -d 'seconds to wait for idle'
complete -c sbridgectl -n "__fish_seen_subcommand_from calibrate" -l buffer -x -d 'MiB'
complete -c sbridgectl -n "__fish_seen_subcommand_from calibrate" -l state -r -F -d 'state file'
