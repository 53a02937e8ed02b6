/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flamegraph.html, the page of pmclog flamegraph, as bytes of the tool:
 * [pmclog_flamegraph_html, pmclog_flamegraph_html_end).  The Makefile
 * makes this object depend on the page.
 */
	.section .rodata
	.global pmclog_flamegraph_html
	.global pmclog_flamegraph_html_end
	.type pmclog_flamegraph_html, @object
pmclog_flamegraph_html:
	.incbin "flamegraph.html"
pmclog_flamegraph_html_end:
	.size pmclog_flamegraph_html, pmclog_flamegraph_html_end - pmclog_flamegraph_html

	.section .note.GNU-stack, "", @progbits
