-- :checkhealth aiq. Neovim 0.7 reports through the health#report_*
-- functions; 0.8 added vim.health.report_*, 0.10 renamed them start, ok,
-- warn and error.
local M = {}

local function reporter()
  local h = vim.health
  if h and h.start then
    return h
  end
  if h and h.report_start then
    return { start = h.report_start, ok = h.report_ok, warn = h.report_warn, error = h.report_error, info = h.report_info }
  end
  local function fn(name)
    return function(...)
      vim.fn["health#report_" .. name](...)
    end
  end
  return { start = fn("start"), ok = fn("ok"), warn = fn("warn"), error = fn("error"), info = fn("info") }
end

function M.check()
  local report = reporter()
  local config = require("aiq.config")
  local rpc = require("aiq.rpc")
  local o = config.options

  report.start("aiq.nvim")
  if vim.fn.has("nvim-0.7") == 1 then
    report.ok("Neovim 0.7 or newer")
  else
    report.error("Neovim 0.7 or newer is needed")
  end

  local path, not_found = rpc.find(o.server)
  if path == "" then
    report.error(
      "the server " .. not_found,
      { "Install it from the clone: " .. rpc.install_hint(), "or set its path: require('aiq').setup({ server = '/path/to/aiq-rpc' })" }
    )
    return
  end
  local version = vim.trim(vim.fn.system({ path, "--version" }))
  if vim.v.shell_error ~= 0 then
    report.error(string.format("%s --version failed: %s", path, version), { "Reinstall it: " .. rpc.install_hint() })
    return
  end
  report.ok(string.format("server: %s (%s)", path, version))

  local info = require("aiq.server").conn:ready(5000)
  if not info then
    report.error("the server did not start; see the message above and its log: " .. config.log_file())
    return
  end
  report.ok("home: " .. info.home)
  if info.modelConfigured then
    report.ok("a model is configured")
  else
    report.warn("no model is configured: only questions that are one SQL statement work", {
      "Set llm.url, llm.api_key and llm.model in " .. info.home .. "/config/config.yaml",
    })
  end
  local names = {}
  for _, s in ipairs(info.sources or {}) do
    names[#names + 1] = string.format("%s (%s)", s.name, s.type)
  end
  if #names > 0 then
    report.ok("data sources: " .. table.concat(names, ", "))
  else
    report.warn("no data source is configured", { "Add one to " .. info.home .. "/config/sources.yaml" })
  end
  for _, w in ipairs(info.warnings or {}) do
    report.warn(w)
  end
end

return M
