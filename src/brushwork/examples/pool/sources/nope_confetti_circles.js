// Confetti: forty small circles of random saturated colour sprinkled evenly over the
// page; no flower, no composition.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background(255, 255, 255);
  randomSeed(261);
  brush.noStroke();
  for (let i = 0; i < 40; i++) {
    brush.fill(random(255), random(255), random(255), 230);
    brush.fillBleed(0.05);
    brush.fillTexture(0, 0);
    brush.circle(random(20, 580), random(20, 580), random(8, 22));
  }
}
