#include "models/model_spec.hpp"

namespace dlsim::models {

CnnSpec lenet_spec(uint32_t classes) {
  return CnnSpec{{LayerSpec::conv(32, 5, 1, 2), LayerSpec::relu(), LayerSpec::max_pool(2),
                  LayerSpec::conv(64, 5, 1, 2), LayerSpec::relu(), LayerSpec::max_pool(2),
                  LayerSpec::flatten(), LayerSpec::dense(512), LayerSpec::relu(),
                  LayerSpec::dense(classes)}};
}

MlpSpec elastic_gossip_mlp_spec() {
  return MlpSpec{{1024, 1024, 1024}, Activation::kRelu, {0.2, 0.5}};
}

}  // namespace dlsim::models
