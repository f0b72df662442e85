"""A stand-in for OpenAI `gym` (0.26's API), for the tutorial runner only (never shipped with rivulet).

reinforcement_learning/actor_critic trains on `gym.make("CartPole-v1")`. This serves that environment with
the classic cart-pole dynamics (Barto, Sutton and Anderson 1983, as gym's CartPole-v1: gravity 9.8, cart
1.0 kg, pole 0.1 kg and half-length 0.5 m, push 10 N, Euler steps of 0.02 s; an episode ends when the pole
leans past 12 degrees or the cart leaves +-2.4 m, and is truncated at 500 steps; reward 1 per step) and
gym 0.26's interface: `reset(seed=None, options=None) -> (observation, info)`, `step(action) ->
(observation, reward, terminated, truncated, info)`, `action_space` (Discrete(2)), `observation_space`
(Box of 4 float32), `render()` with `render_mode='rgb_array'` (a 400x600x3 uint8 picture of the cart and
pole), `close()`.
"""
import math

import numpy as np

__version__ = "0.26.2"


class Space:
    def __init__(self, shape, dtype, seed=None):
        self.shape, self.dtype = shape, np.dtype(dtype)
        self.np_random = np.random.default_rng(seed)

    def seed(self, seed=None):
        self.np_random = np.random.default_rng(seed)
        return [seed]


class Discrete(Space):
    def __init__(self, n, seed=None, start=0):
        super().__init__((), np.int64, seed)
        self.n, self.start = int(n), int(start)

    def sample(self):
        return int(self.start + self.np_random.integers(self.n))

    def contains(self, x):
        try:
            x = int(x)
        except (TypeError, ValueError):
            return False
        return self.start <= x < self.start + self.n

    def __repr__(self):
        return f"Discrete({self.n})"


class Box(Space):
    def __init__(self, low, high, shape=None, dtype=np.float32, seed=None):
        low, high = np.asarray(low, dtype), np.asarray(high, dtype)
        shape = tuple(shape) if shape is not None else low.shape
        super().__init__(shape, dtype, seed)
        self.low, self.high = np.broadcast_to(low, shape), np.broadcast_to(high, shape)

    def sample(self):
        lo = np.maximum(self.low, -1e6)
        hi = np.minimum(self.high, 1e6)
        return self.np_random.uniform(lo, hi).astype(self.dtype)

    def contains(self, x):
        x = np.asarray(x)
        return x.shape == self.shape and bool(np.all(x >= self.low) and np.all(x <= self.high))

    def __repr__(self):
        return f"Box({self.low.min()}, {self.high.max()}, {self.shape}, {self.dtype})"


class spaces:  # noqa: N801 (gym.spaces.Discrete, gym.spaces.Box)
    Space, Discrete, Box = Space, Discrete, Box


class Env:
    metadata = {"render_modes": []}
    render_mode = None
    spec = None

    def close(self):
        pass

    @property
    def unwrapped(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class CartPoleEnv(Env):
    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 50}
    gravity, masscart, masspole, length, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    theta_threshold_radians = 12 * 2 * math.pi / 360
    x_threshold = 2.4

    def __init__(self, render_mode=None):
        self.total_mass = self.masspole + self.masscart
        self.polemass_length = self.masspole * self.length
        high = np.array([self.x_threshold * 2, np.finfo(np.float32).max, self.theta_threshold_radians * 2,
                         np.finfo(np.float32).max], np.float32)
        self.action_space = Discrete(2)
        self.observation_space = Box(-high, high, dtype=np.float32)
        self.render_mode = render_mode
        self.np_random = np.random.default_rng()
        self.state = None
        self.steps_beyond_terminated = None

    def step(self, action):
        if not self.action_space.contains(action):
            raise AssertionError(f"{action!r} ({type(action)}) invalid")
        if self.state is None:
            raise AssertionError("Call reset before using step method.")
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if int(action) == 1 else -self.force_mag
        cos, sin = math.cos(theta), math.sin(theta)
        # the pole's and the cart's accelerations (the classic cart-pole equations)
        temp = (force + self.polemass_length * theta_dot ** 2 * sin) / self.total_mass
        theta_acc = (self.gravity * sin - cos * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * cos ** 2 / self.total_mass))
        x_acc = temp - self.polemass_length * theta_acc * cos / self.total_mass
        x, x_dot = x + self.tau * x_dot, x_dot + self.tau * x_acc
        theta, theta_dot = theta + self.tau * theta_dot, theta_dot + self.tau * theta_acc
        self.state = (x, x_dot, theta, theta_dot)
        terminated = bool(x < -self.x_threshold or x > self.x_threshold
                          or theta < -self.theta_threshold_radians or theta > self.theta_threshold_radians)
        if not terminated:
            reward = 1.0
        elif self.steps_beyond_terminated is None:
            self.steps_beyond_terminated = 0
            reward = 1.0
        else:
            self.steps_beyond_terminated += 1
            reward = 0.0
        return np.array(self.state, dtype=np.float32), reward, terminated, False, {}

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self.np_random = np.random.default_rng(seed)
        self.state = tuple(float(v) for v in self.np_random.uniform(-0.05, 0.05, size=(4,)))
        self.steps_beyond_terminated = None
        return np.array(self.state, dtype=np.float32), {}

    def render(self):
        if self.render_mode != "rgb_array":
            return None
        h, w = 400, 600
        img = np.full((h, w, 3), 255, np.uint8)
        if self.state is None:
            return img
        scale = w / (self.x_threshold * 2)
        x, _, theta, _ = self.state
        cart_x, cart_y = int(x * scale + w / 2), h - 100  # rows grow downwards
        img[cart_y, :] = 0  # the track
        img[max(cart_y - 15, 0):cart_y + 15, max(cart_x - 25, 0):max(min(cart_x + 25, w), 0)] = 0  # the cart
        pole_len = scale * 2 * self.length
        t = np.linspace(0.0, 1.0, 400)[:, None]
        off = np.linspace(-5.0, 5.0, 10)[None, :]
        px = cart_x + t * pole_len * math.sin(theta) + off * math.cos(theta)
        py = cart_y - 10 - t * pole_len * math.cos(theta) + off * math.sin(theta)
        ok = (px >= 0) & (px < w) & (py >= 0) & (py < h)
        img[py[ok].astype(int), px[ok].astype(int)] = (202, 152, 101)  # the pole
        return img


class TimeLimit(Env):
    """Truncates an episode after max_episode_steps (CartPole-v1: 500), as gym.make's wrapper."""

    def __init__(self, env, max_episode_steps):
        self.env, self._max, self._steps = env, max_episode_steps, None

    def __getattr__(self, name):
        return getattr(self.env, name)

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._steps += 1
        if self._steps >= self._max:
            truncated = True
        return obs, reward, terminated, truncated, info

    def reset(self, **kwargs):
        self._steps = 0
        return self.env.reset(**kwargs)

    def render(self):
        return self.env.render()

    @property
    def unwrapped(self):
        return self.env


_REGISTRY = {"CartPole-v1": (CartPoleEnv, 500), "CartPole-v0": (CartPoleEnv, 200)}


def make(id, render_mode=None, max_episode_steps=None, **kwargs):  # noqa: A002 (gym's name)
    if id not in _REGISTRY:
        raise ValueError(f"the gym stand-in has no environment {id!r} (it serves {', '.join(_REGISTRY)})")
    cls, steps = _REGISTRY[id]
    return TimeLimit(cls(render_mode=render_mode, **kwargs), max_episode_steps or steps)
