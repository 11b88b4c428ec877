resource "kubernetes_deployment" "sglang" {
  metadata {
    name = "sglang"
  }
  spec {
    template {
