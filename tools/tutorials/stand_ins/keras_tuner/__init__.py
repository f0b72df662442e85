"""A stand-in for `keras_tuner` (kt), for the tutorial runner only (never shipped with rivulet).

keras/keras_tuner searches a model's hyperparameters with `kt.Hyperband`. This serves that search on
rivulet's Keras with keras-tuner 1.4's interface: `HyperParameters` (`Int`, `Float`, `Choice`, `Boolean`,
`Fixed`, `get`, `values`), `Objective`, `Hyperband(hypermodel, objective, max_epochs, factor=3,
hyperband_iterations=1, seed=None, directory=None, project_name=None, overwrite=False)` and `RandomSearch(...,
max_trials)`; `search(*fit_args, **fit_kwargs)` (each trial builds the model from sampled values and fits it
with the given arguments, its epochs set by the search), `get_best_hyperparameters`, `get_best_models`,
`hypermodel.build`, `results_summary`, `search_space_summary`; each trial is written as JSON under
`directory/project_name/` (trial_NNNN/trial.json, and oracle.json).

Hyperband as the paper (Li et al., 2018) and keras-tuner describe it: brackets s = s_max .. 0 with
s_max = floor(log_factor(max_epochs)); a bracket starts ceil((s_max + 1) * factor**s / (s + 1)) random
configurations (at least 1 + log_factor(max_epochs), rounded up, in the first) at max_epochs / factor**s
epochs, and each round keeps the best 1/factor of them for factor times the epochs (trained again from the
start here; keras-tuner continues from the round before's weights).
"""
import json
import math
import os
import random
import time

__version__ = "1.4.7"


class HyperParameters:
    def __init__(self):
        self.space = {}  # name -> (kind, spec)
        self.values = {}

    def _register(self, name, kind, spec, default):
        if name not in self.space:
            self.space[name] = (kind, spec)
        if name not in self.values:
            self.values[name] = default
        return self.values[name]

    def Int(self, name, min_value, max_value, step=None, sampling="linear", default=None, parent_name=None,
            parent_values=None):  # noqa: N802 (keras-tuner's names)
        if max_value < min_value:
            raise ValueError(f"`max_value` {max_value} is smaller than `min_value` {min_value} for {name}")
        spec = {"min_value": int(min_value), "max_value": int(max_value), "step": int(step or 1),
                "sampling": sampling}
        return self._register(name, "Int", spec, int(min_value) if default is None else int(default))

    def Float(self, name, min_value, max_value, step=None, sampling="linear", default=None, parent_name=None,
              parent_values=None):  # noqa: N802
        spec = {"min_value": float(min_value), "max_value": float(max_value), "step": step, "sampling": sampling}
        return self._register(name, "Float", spec, float(min_value) if default is None else float(default))

    def Choice(self, name, values, ordered=None, default=None, parent_name=None, parent_values=None):  # noqa: N802
        values = list(values)
        if not values:
            raise ValueError(f"`values` must be provided for `Choice` {name}")
        return self._register(name, "Choice", {"values": values}, values[0] if default is None else default)

    def Boolean(self, name, default=False, parent_name=None, parent_values=None):  # noqa: N802
        return self._register(name, "Boolean", {}, bool(default))

    def Fixed(self, name, value, parent_name=None, parent_values=None):  # noqa: N802
        return self._register(name, "Fixed", {"value": value}, value)

    def get(self, name):
        if name not in self.values:
            raise KeyError(f"{name} does not exist.")
        return self.values[name]

    def __getitem__(self, name):
        return self.get(name)

    def __contains__(self, name):
        return name in self.values

    def copy(self):
        hp = HyperParameters()
        hp.space, hp.values = dict(self.space), dict(self.values)
        return hp

    def _sample(self, rng):
        """A random value for each known hyperparameter."""
        hp = HyperParameters()
        hp.space = dict(self.space)
        for name, (kind, spec) in self.space.items():
            if kind == "Int":
                hp.values[name] = rng.randrange(spec["min_value"], spec["max_value"] + 1, spec["step"])
            elif kind == "Float":
                lo, hi = spec["min_value"], spec["max_value"]
                if spec["sampling"] == "log":
                    v = math.exp(rng.uniform(math.log(lo), math.log(hi)))
                else:
                    v = rng.uniform(lo, hi)
                if spec["step"]:
                    v = min(hi, lo + round((v - lo) / spec["step"]) * spec["step"])
                hp.values[name] = v
            elif kind == "Choice":
                hp.values[name] = rng.choice(spec["values"])
            elif kind == "Boolean":
                hp.values[name] = rng.random() < 0.5
            else:
                hp.values[name] = spec["value"]
        return hp


class Objective:
    def __init__(self, name, direction):
        if direction not in ("min", "max"):
            raise ValueError(f"`direction` should be one of {{'min', 'max'}}, but got: {direction}")
        self.name, self.direction = name, direction

    def __repr__(self):
        return f"Objective(name=\"{self.name}\", direction=\"{self.direction}\")"


def _objective(objective):
    if isinstance(objective, Objective):
        return objective
    if isinstance(objective, str):
        return Objective(objective, "min" if "loss" in objective or "error" in objective else "max")
    raise ValueError(f"`objective` must be a string or a keras_tuner.Objective, got {objective!r}")


class HyperModel:
    def __init__(self, build_fn=None):
        self._build = build_fn

    def build(self, hp):
        return self._build(hp)


class Trial:
    def __init__(self, trial_id, hyperparameters):
        self.trial_id, self.hyperparameters = trial_id, hyperparameters
        self.score, self.best_step, self.status = None, None, "RUNNING"


class Tuner:
    def __init__(self, hypermodel, objective, seed=None, directory=None, project_name=None, overwrite=False,
                 **kwargs):
        self.hypermodel = hypermodel if hasattr(hypermodel, "build") else HyperModel(hypermodel)
        self.objective = _objective(objective)
        self.rng = random.Random(seed)
        self.project_dir = os.path.join(directory or ".", project_name or "untitled_project")
        os.makedirs(self.project_dir, exist_ok=True)
        self.trials = []
        self._models = {}
        self._space = HyperParameters()
        self.hypermodel.build(self._space)  # the search space: the defaults' build registers every name

    # -- one trial ----------------------------------------------------------------------------------------
    def _run_trial(self, hp, epochs, fit_args, fit_kwargs):
        trial = Trial(f"{len(self.trials):04d}", hp)
        self.trials.append(trial)
        start = time.time()
        print(f"\nSearch: Running Trial #{len(self.trials)}\n")
        width = max((len(n) for n in hp.values), default=5)
        print(f"{'Value':<16}|Best Value So Far |Hyperparameter")
        best = self._best_trials(1)
        for name, value in hp.values.items():
            so_far = best[0].hyperparameters.values.get(name) if best else None
            print(f"{str(value):<16}|{str(so_far):<18}|{name:<{width}}")
        print()
        model = self.hypermodel.build(hp)
        kwargs = dict(fit_kwargs, epochs=epochs)
        history = model.fit(*fit_args, **kwargs)
        values = history.history.get(self.objective.name)
        if not values:
            raise ValueError(f"Objective value missing in metrics reported to the Oracle, expected: "
                             f"['{self.objective.name}'], found: {sorted(history.history)}")
        pick = min if self.objective.direction == "min" else max
        trial.score = float(pick(values))
        trial.best_step = values.index(trial.score)
        trial.status = "COMPLETED"
        self._models[trial.trial_id] = model
        self._write(trial)
        elapsed = time.time() - start
        print(f"Trial {len(self.trials)} Complete [{time.strftime('%Hh %Mm %Ss', time.gmtime(elapsed))}]")
        print(f"{self.objective.name}: {trial.score}\n")
        print(f"Best {self.objective.name} So Far: {self._best_trials(1)[0].score}")
        return trial

    def _write(self, trial):
        folder = os.path.join(self.project_dir, f"trial_{trial.trial_id}")
        os.makedirs(folder, exist_ok=True)
        record = {"trial_id": trial.trial_id, "hyperparameters": {"values": trial.hyperparameters.values},
                  "score": trial.score, "best_step": trial.best_step, "status": trial.status}
        with open(os.path.join(folder, "trial.json"), "w") as f:
            json.dump(record, f, default=str)
        with open(os.path.join(self.project_dir, "oracle.json"), "w") as f:
            json.dump({"objective": {"name": self.objective.name, "direction": self.objective.direction},
                       "trials": [t.trial_id for t in self.trials]}, f)

    def _best_trials(self, n):
        done = [t for t in self.trials if t.score is not None]
        done.sort(key=lambda t: t.score, reverse=self.objective.direction == "max")
        return done[:n]

    # -- results ------------------------------------------------------------------------------------------
    def get_best_hyperparameters(self, num_trials=1):
        return [t.hyperparameters for t in self._best_trials(num_trials)]

    def get_best_models(self, num_models=1):
        return [self._models[t.trial_id] for t in self._best_trials(num_models)]

    def results_summary(self, num_trials=10):
        print(f"Results summary\nResults in {self.project_dir}\nShowing {num_trials} best trials\n{self.objective}")
        for t in self._best_trials(num_trials):
            print(f"\nTrial {t.trial_id} summary\nHyperparameters:")
            for name, value in t.hyperparameters.values.items():
                print(f"{name}: {value}")
            print(f"Score: {t.score}")

    def search_space_summary(self):
        print(f"Search space summary\nDefault search space size: {len(self._space.space)}")
        for name, (kind, spec) in self._space.space.items():
            print(f"{name} ({kind})\n{spec}")


class RandomSearch(Tuner):
    def __init__(self, hypermodel=None, objective=None, max_trials=10, **kwargs):
        super().__init__(hypermodel, objective, **kwargs)
        self.max_trials = max_trials

    def search(self, *fit_args, **fit_kwargs):
        start = time.time()
        epochs = fit_kwargs.pop("epochs", 1)
        for _ in range(self.max_trials):
            self._run_trial(self._space._sample(self.rng), epochs, fit_args, fit_kwargs)
        print(f"Total elapsed time: {time.strftime('%Hh %Mm %Ss', time.gmtime(time.time() - start))}")


class Hyperband(Tuner):
    def __init__(self, hypermodel=None, objective=None, max_epochs=100, factor=3, hyperband_iterations=1,
                 **kwargs):
        if max_epochs < 1 or factor < 2:
            raise ValueError("Hyperband needs max_epochs >= 1 and factor >= 2")
        super().__init__(hypermodel, objective, **kwargs)
        self.max_epochs, self.factor, self.hyperband_iterations = int(max_epochs), int(factor), hyperband_iterations

    def _brackets(self):
        """[(configurations, epochs)] of each bracket's first round."""
        s_max = int(math.floor(math.log(self.max_epochs) / math.log(self.factor) + 1e-9))
        out = []
        for s in range(s_max, -1, -1):
            n = math.ceil((s_max + 1) * self.factor ** s / (s + 1))
            if s == s_max:
                n = max(n, math.ceil(1 + math.log(self.max_epochs) / math.log(self.factor)))
            out.append((n, max(1, round(self.max_epochs / self.factor ** s)), s))
        return out

    def search(self, *fit_args, **fit_kwargs):
        start = time.time()
        fit_kwargs.pop("epochs", None)  # the search sets each trial's epochs
        for _ in range(self.hyperband_iterations):
            for n, epochs, s in self._brackets():
                configs = [self._space._sample(self.rng) for _ in range(n)]
                for i in range(s + 1):
                    trials = [self._run_trial(hp, min(epochs * self.factor ** i, self.max_epochs), fit_args,
                                              fit_kwargs) for hp in configs]
                    keep = max(1, len(configs) // self.factor)
                    trials.sort(key=lambda t: t.score, reverse=self.objective.direction == "max")
                    configs = [t.hyperparameters for t in trials[:keep]]
        print(f"Total elapsed time: {time.strftime('%Hh %Mm %Ss', time.gmtime(time.time() - start))}")


class tuners:  # noqa: N801 (kt.tuners.Hyperband)
    Hyperband, RandomSearch = Hyperband, RandomSearch


class engine:  # noqa: N801
    class hyperparameters:  # noqa: N801
        HyperParameters = HyperParameters
