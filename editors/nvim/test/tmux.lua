-- Set-up of the real (not headless) Neovim that nvim_test.go drives in
-- tmux, keys and all, to take a text screenshot of what a person sees.
-- The test types the question; this only configures the plugin, with
-- the default panel: half the editor's width.
require("aiq").setup({
  server = os.getenv("AIQ_TEST_SERVER"),
  home = os.getenv("AIQ_TEST_HOME"),
  source = os.getenv("AIQ_TEST_SOURCE"),
})
vim.bo.filetype = "sql"
vim.o.laststatus = 2
