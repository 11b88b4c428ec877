locals {
  pool    = local.context
  context = local.pool
}
