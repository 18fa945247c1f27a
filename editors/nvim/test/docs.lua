-- The help file's tags build and resolve, the shipped doc/tags is what
-- :helptags makes of doc/aiq.txt (so :help aiq works with no :helptags, and
-- a :helptags ALL leaves the clone unchanged), :checkhealth aiq reports the
-- server, and loading the plugin twice is harmless.
local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
local T = dofile(here .. "/helper.lua")

T.run(function()
  -- :help before any :helptags, with the plugin on 'runtimepath' only, as
  -- the README installs it.
  vim.cmd("help aiq")
  T.truthy(vim.api.nvim_buf_get_name(0):match("editors/nvim/doc/aiq%.txt$"), ":help aiq opens " .. vim.api.nvim_buf_get_name(0))
  vim.cmd("helpclose")

  local rt = T.env.AIQ_TEST_TMP .. "/rt"
  vim.cmd("helptags " .. rt .. "/doc")
  local shipped = vim.fn.readfile(vim.fn.fnamemodify(here, ":h") .. "/doc/tags")
  T.eq(shipped, vim.fn.readfile(rt .. "/doc/tags"),
    "editors/nvim/doc/tags is out of date: run nvim --headless -c 'helptags editors/nvim/doc' -c q")
  local tags = {}
  for _, line in ipairs(vim.fn.readfile(rt .. "/doc/tags")) do
    tags[vim.split(line, "\t")[1]] = true
  end
  for _, tag in ipairs({
    "aiq", "aiq.txt", "aiq-install", "aiq-requirements", "aiq-setup", "aiq-commands", "aiq-keymaps",
    "aiq-panel", "aiq-health", "aiq-restore", ":AiqAsk", ":AiqHistory", ":AiqClear", ":AiqSave", ":AiqLoad",
    ":AiqSessions", ":AiqSource", ":AiqModel", ":AiqCancel", ":AiqRun", ":AiqRerun", ":AiqExport", ":AiqAllowances",
  }) do
    T.truthy(tags[tag], "the help file has no tag " .. tag)
  end
  vim.cmd("help :AiqLoad")
  T.truthy(vim.api.nvim_get_current_line():find(":AiqLoad", 1, true), ":help :AiqLoad lands on " .. vim.api.nvim_get_current_line())
  vim.cmd("helpclose")

  -- Loaded twice: the guard keeps the commands as they are.
  vim.cmd("runtime plugin/aiq.lua")
  T.eq(vim.fn.exists(":AiqAsk"), 2, ":AiqAsk is defined")

  T.setup()
  vim.cmd("checkhealth aiq")
  local report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  T.log(report)
  for _, want in ipairs({ "OK: server: " .. T.env.AIQ_TEST_SERVER, "OK: a model is configured", "OK: data sources: db (sqlite)" }) do
    T.truthy(report:find(want, 1, true), "the health report lacks " .. want)
  end
  T.truthy(not report:find("ERROR", 1, true), "the health report has an error")
end)
