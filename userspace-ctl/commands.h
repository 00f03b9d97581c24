/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command table: one line a command, SB_COMMAND(NAME, SUMMARY), in the
 * order `sbridgectl --help` lists them. NAME is the word on the command
 * line and the command's file, NAME.c, defines cmd_NAME(argc, argv) with
 * argv[0] the name. No include guard: sbridgectl.h expands it into the
 * prototypes and main.c into the table.
 */
SB_COMMAND(status, "module state, counter source, core types")
SB_COMMAND(doctor, "check sbridge on this machine, say what to fix")
SB_COMMAND(get, "per-CPU core type, capacity, factor | get param [NAME]")
SB_COMMAND(set, "set cpu-factor CPUS VALUE | set param NAME VALUE")
SB_COMMAND(config, "config apply|check|save FILE: set values at boot")
SB_COMMAND(tasks, "tracked tasks: CPI stack, factors, placement")
SB_COMMAND(top, "refreshing view of the busiest tasks")
SB_COMMAND(rules, "rules load|list|clear|check")
SB_COMMAND(hintmap, "scx_layered's task-hint map: write|dump|create PATH")
SB_COMMAND(matrix, "matrix save|load FILE: the learned factors")
SB_COMMAND(check, "work-conserving invariant reports")
SB_COMMAND(events, "stream module events")
SB_COMMAND(record, "record events, switches and samples to a file")
SB_COMMAND(calibrate, "measure the core types, set CPU factors and latency")
