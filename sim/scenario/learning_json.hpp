// The learning sections of a scenario as JSON: "data", "model", "optimizer". Parsing (errors
// name file and JSON pointer) and rendering back with every default filled in.
#pragma once

#include <nlohmann/json.hpp>

#include "models/model_spec.hpp"
#include "sim/scenario/json_object.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace dlsim {

DataSection parse_data(JsonObject o);
nlohmann::json data_to_json(const DataSection& data);

models::ModelSpec parse_model(JsonObject o);
nlohmann::json model_to_json(const models::ModelSpec& model);

models::OptimizerSpec parse_optimizer(JsonObject o);
nlohmann::json optimizer_to_json(const models::OptimizerSpec& optimizer);

/// The shape of one sample and the class count, known from the data spec without loading it.
models::InputShape input_shape(const std::optional<DataSection>& data);

}  // namespace dlsim
